(function () {
  var tries = 0;
  function go() {
    var first = document.querySelector(".st-key-result_0");
    if (first) { first.scrollIntoView({ block: "start" }); return; }
    if (tries++ < 50) { setTimeout(go, 100); }
  }
  go();
})();
