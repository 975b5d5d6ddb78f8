"""A planted corpus: secrets and personal data of many kinds, each inside an error line.

Each entry is (kind, error line, the values that must not survive). The values are made up
in the real formats; they are assembled from pieces here so that this file itself does not
look like a leak to a repository scanner. `tests/test_leaks.py` sends every line through
every place text is stored or offered and counts what survives, whole or in part.
"""
from __future__ import annotations

from typing import NamedTuple


class Planted(NamedTuple):
    kind: str
    line: str
    secrets: tuple[str, ...]


def j(*parts: str) -> str:
    return "".join(parts)


B64 = "Zk9vQmFyQmF6UXV4UXV1eDEyMzQ1Njc4OTBhYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODlBQkNERUZHSElK"
HF = j("hf_", "QwErTyUiOpAsDfGhJkLzXcVbNm123456")
HF2 = j("hf_", "ZyXwVuTsRqPoNmLkJiHgFeDcBa98765432")
AWS_ID = j("AKIA", "IOSFODNN7EXAMPL3")
AWS_SECRET = j("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYzzEXAMPLEKEY")
AWS_SESSION = j("IQoJb3JpZ2luX2VjEJr", "//////////wEaCXVzLWVhc3QtMSJHMEUCIQD6")
AZURE_KEY = j("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq", "/K1SZFPTOtr/KBHBeksoGMGw==")
AZURE_SAS = j("sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2026-01-01&sig=", "Zm9vYmFyYmF6cXV4JTJGc2lnbmF0dXJl%3D")
SLACK_BOT = j("xoxb-", "2417834961-5092871234567-GoJvXqLmNbTrKsWpYhZdFcAe")
SLACK_HOOK = j("https://hooks.slack.com/services/", "T0A1B2C3D/B4E5F6G7H/q8R9s0T1u2V3w4X5y6Z7a8B9")
DISCORD_HOOK = j("https://discord.com/api/webhooks/", "112233445566778899/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789")
GH_CLASSIC = j("ghp_", "16C7e42F292c6912E7710c838347Ae178B4a")
GH_FINE = j("github_pat_", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV")
GL = j("glpat-", "xXyYzZaAbBcCdDeEfF01")
OPENAI = j("sk-proj-", "Ab3dEf_gHiJkLmNoPqRsTuVwXyZ-0123456789abcdefGHIJ")
ANTHROPIC = j("sk-ant-api03-", "AbCdEfGhIjKlMnOpQrSt-uvwxyz_0123456789AA")
GOOGLE = j("AIza", "SyA-1234567890abcdefghijklmnopqrstu")
STRIPE = j("sk_live_", "4eC39HqLyjWDarjtT1zdp7dc")
SENDGRID = j("SG.", "ngeVfQFYQlKU0ufo8x5d1A.", "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr")
TWILIO = j("SK", "0123456789abcdef0123456789abcdef")
MAILCHIMP = j("0123456789abcdef0123456789abcdef", "-us6")
TELEGRAM = j("123456789:", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1")
SQUARE = j("sq0csp-", "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG")
NPM = j("npm_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
PYPI = j("pypi-", "AgEIcHlwaS5vcmc", "CJDk1ZGY2NTE2LTljNjgtNDgwZC1hYmZhLTE0ZmI4YTg0ZDk3NQACKlszLCI3YjEyMmQ0",
         "Yy1hNjQzLTRhMmYtYjQ2Ni0xZjQ1NTQ5YjM3NzYiXQAABiC")
JWT = j("eyJhbGciOiJIUzI1NiJ9.", "eyJzdWIiOiIxMjM0NTY3ODkwIn0.", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
WANDB = j("9f8e7d6c5b4a3f2e1d0c", "9b8a7f6e5d4c3b2a1f0e")
WANDB2 = j("0123456789abcdef0123", "456789abcdef01234567")
KEY_BODY = j("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "VJTUt9Us8cKjMzEfYyjiWA4R4")
OPENSSH_BODY = j("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "AAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQ")
DISCORD_BOT = j("MTk4NjIyNDgzNDcxOTI1MjQ4", ".Cl2FMQ.", "ZnCjm1XVW7vRze4b7Cq4se7kKWs")

CORPUS: tuple[Planted, ...] = (
    Planted("hf-token", f"OSError: 401 Client Error: Unauthorized for token {HF}", (HF,)),
    Planted("hf-token past column 220",
            "huggingface_hub.errors.HfHubHTTPError: 401 Client Error: Unauthorized for url: "
            "https://huggingface.co/api/models/meta-llama/Llama-3.1-8B-Instruct/revision/main (Request ID: "
            f"Root=1-67890abc-0123456789abcdef01234567) Invalid credentials in Authorization header; token was {HF2}",
            (HF2,)),
    Planted("aws-key-id", f"botocore.exceptions.ClientError: InvalidAccessKeyId: The AWS Access Key Id {AWS_ID} does not exist",
            (AWS_ID,)),
    Planted("aws-secret in aws configure",
            f"RuntimeError: aws configure failed at: AWS Secret Access Key [None]: {AWS_SECRET}", (AWS_SECRET,)),
    Planted("aws-secret assignment", f"ValueError: bad credentials file: aws_secret_access_key = {AWS_SECRET[::-1]}",
            (AWS_SECRET[::-1],)),
    Planted("aws-session-token", f"botocore.exceptions.ClientError: ExpiredToken: aws_session_token={AWS_SESSION}",
            (AWS_SESSION,)),
    Planted("azure-account-key",
            "azure.core.exceptions.ClientAuthenticationError: Server failed to authenticate the request for "
            f"DefaultEndpointsProtocol=https;AccountName=mlartifacts;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net",
            (AZURE_KEY,)),
    Planted("azure-sas", f"azure.core.exceptions.HttpResponseError: AuthenticationFailed for https://x.blob.core.windows.net/c?{AZURE_SAS}",
            (AZURE_SAS.split("sig=")[1],)),
    Planted("slack-bot-token", f"slack_sdk.errors.SlackApiError: invalid_auth for token {SLACK_BOT}", (SLACK_BOT,)),
    Planted("slack-webhook", f"requests.exceptions.HTTPError: 404 Client Error: Not Found for url: {SLACK_HOOK}",
            (SLACK_HOOK.rsplit("/", 1)[1], "T0A1B2C3D/B4E5F6G7H")),
    Planted("discord-webhook", f"requests.exceptions.HTTPError: 401 Client Error for url: {DISCORD_HOOK}",
            (DISCORD_HOOK.rsplit("/", 1)[1],)),
    Planted("discord-bot-token", f"discord.errors.LoginFailure: Improper token has been passed: {DISCORD_BOT}", (DISCORD_BOT,)),
    Planted("github-classic", f"git.exc.GitCommandError: Cmd('git') failed: remote: Invalid username or token {GH_CLASSIC}",
            (GH_CLASSIC,)),
    Planted("github-fine-grained",
            f"RuntimeError: fatal: could not read from https://{GH_FINE}@github.com/org/private-repo.git", (GH_FINE,)),
    Planted("gitlab-token", f"gitlab.exceptions.GitlabAuthenticationError: 401: invalid token {GL}", (GL,)),
    Planted("openai-key", f"openai.AuthenticationError: Error code: 401 - Incorrect API key provided: {OPENAI}", (OPENAI,)),
    Planted("anthropic-key", f"anthropic.AuthenticationError: Error code: 401 - invalid x-api-key {ANTHROPIC}", (ANTHROPIC,)),
    Planted("google-api-key", f"google.auth.exceptions.RefreshError: 403 API key not valid: {GOOGLE}", (GOOGLE,)),
    Planted("stripe-key", f"stripe.error.AuthenticationError: Invalid API Key provided: {STRIPE}", (STRIPE,)),
    Planted("sendgrid-key", f"python_http_client.exceptions.UnauthorizedError: HTTP Error 401 with {SENDGRID}", (SENDGRID,)),
    Planted("twilio-key", f"twilio.base.exceptions.TwilioRestException: Unable to authenticate {TWILIO}", (TWILIO,)),
    Planted("mailchimp-key", f"mailchimp3.helpers.MailChimpError: API Key Invalid {MAILCHIMP}", (MAILCHIMP,)),
    Planted("telegram-bot-token", f"telegram.error.InvalidToken: Invalid token {TELEGRAM}", (TELEGRAM.split(":")[1],)),
    Planted("square-oauth", f"square.exceptions.ApiError: UNAUTHORIZED for {SQUARE}", (SQUARE,)),
    Planted("npm-token", f"subprocess.CalledProcessError: npm ERR! 401 with //registry.npmjs.org/:_authToken={NPM}", (NPM,)),
    Planted("pypi-token", f"twine.exceptions.InvalidDistribution: upload failed with password {PYPI}", (PYPI,)),
    Planted("pypi-token in TWINE_PASSWORD", f"RuntimeError: 403 Forbidden from upload, TWINE_PASSWORD={PYPI[:120]}",
            (PYPI[:120],)),
    Planted("jwt", f"jwt.exceptions.ExpiredSignatureError: Signature has expired for {JWT}", (JWT,)),
    Planted("bearer header", f"requests.exceptions.HTTPError: 401 with headers={{'Authorization': 'Bearer {OPENAI[8:40]}'}}",
            (OPENAI[8:40],)),
    Planted("basic auth header", "urllib.error.HTTPError: HTTP Error 401 sent Authorization: Basic dXNlcjpjb3JyZWN0aG9yc2U=",
            ("dXNlcjpjb3JyZWN0aG9yc2U=",)),
    Planted("x-api-key header", "httpx.HTTPStatusError: 403 for x-api-key: 5f2b9c8e7d6a4b3c2d1e0f9a8b7c6d5e",
            ("5f2b9c8e7d6a4b3c2d1e0f9a8b7c6d5e",)),
    Planted("cookie header", "requests.exceptions.ConnectionError: sent Cookie: sessionid=8f14e45fceea167a5a36dedd4bea2543; "
            "csrftoken=Q2hvY29sYXRlQ2hpcENvb2tpZQ", ("8f14e45fceea167a5a36dedd4bea2543", "Q2hvY29sYXRlQ2hpcENvb2tpZQ")),
    Planted("set-cookie", "aiohttp.client_exceptions.ClientResponseError: 302, Set-Cookie: _oauth2_proxy=YWxpY2UtcHJveHktY29va2ll",
            ("YWxpY2UtcHJveHktY29va2ll",)),
    Planted("curl -u", "subprocess.CalledProcessError: Command 'curl -u mlops:Hunter2Xy9 https://artifacts.example.com/x' "
            "returned non-zero exit status 22.", ("mlops", "Hunter2Xy9")),
    Planted("docker login -p", "subprocess.CalledProcessError: Command 'docker login -u ci-bot -p Dkr9Passw0rdZ nvcr.io' "
            "returned non-zero exit status 1.", ("Dkr9Passw0rdZ",)),
    Planted("mysql -p", "subprocess.CalledProcessError: Command 'mysql -h db -u app -pMySqlS3cret7 metrics' returned "
            "non-zero exit status 1.", ("MySqlS3cret7",)),
    Planted("postgres url", "sqlalchemy.exc.OperationalError: could not connect to postgresql://kb:Pg5ecretWord@10.20.30.40:5432/kb",
            ("Pg5ecretWord", "10.20.30.40")),
    Planted("url userinfo", "pip._vendor.requests.exceptions.SSLError: https://deploy:R3poPassw0rd@pypi.corp.example.com/simple/",
            ("R3poPassw0rd", "deploy")),
    Planted("wandb login", f"wandb.errors.AuthenticationError: API key rejected; ran: wandb login --relogin {WANDB}", (WANDB,)),
    Planted("wandb netrc", f"wandb.errors.UsageError: bad .netrc entry: machine api.wandb.ai login erin password {WANDB2}",
            (WANDB2, "erin")),
    Planted("WANDB_API_KEY", f"wandb.errors.CommError: 401 with WANDB_API_KEY={WANDB[::-1]}", (WANDB[::-1],)),
    Planted("password assignment", "psycopg.OperationalError: connection failed: password=Tr0ub4dorAnd3 host=db",
            ("Tr0ub4dorAnd3",)),
    Planted("--password flag", "RuntimeError: mlflow server --password 'correct-horse-battery' exited with 1",
            ("correct-horse-battery",)),
    Planted("client secret", "msal.exceptions.MsalServiceError: invalid_client for client_secret=8Q~abc.DEF_ghiJKLmno12",
            ("8Q~abc.DEF_ghiJKLmno12",)),
    Planted("api_key json", 'ValueError: bad config {"api_key": "my-api-key-value-1234", "model": "gpt-4o"}',
            ("my-api-key-value-1234",)),
    Planted("private key, escaped newlines",
            f"ValueError: Could not deserialize key data: '-----BEGIN PRIVATE KEY-----\\n{KEY_BODY}\\n"
            f"{KEY_BODY[::-1]}\\n-----END PRIVATE KEY-----\\n'", (KEY_BODY, KEY_BODY[::-1])),
    Planted("openssh key, escaped newlines",
            f"paramiko.ssh_exception.SSHException: not a valid key: -----BEGIN OPENSSH PRIVATE KEY-----\\n{OPENSSH_BODY}\\n",
            (OPENSSH_BODY,)),
    Planted("email", "smtplib.SMTPDataError: {'alice.smith@example.com': (550, b'User unknown')}",
            ("alice.smith@example.com",)),
    Planted("user in /home", 'FileNotFoundError: [Errno 2] No such file or directory: "/home/bobsmith/checkpoints/step100.pt"',
            ("bobsmith",)),
    Planted("user in /Users", "PermissionError: [Errno 13] Permission denied: '/Users/carolyn/Library/Caches/pip'",
            ("carolyn",)),
    Planted("user in C:\\Users", r"OSError: [WinError 126] error loading C:\Users\dmitri\AppData\Local\torch\lib\c10.dll",
            ("dmitri",)),
    Planted("user in /scratch", "OSError: [Errno 122] Disk quota exceeded: '/scratch/fionagh/hf_cache/models--x'",
            ("fionagh",)),
    Planted("shell prompt alice@gpu-node-17", "RuntimeError: CUDA error: out of memory, from alice@gpu-node-17:~$ python train.py",
            ("alice", "gpu-node-17")),
    Planted("shell prompt [dave@login01 ~]$", "sbatch: error: Batch job submission failed: [dave@login01 ~]$ sbatch run.sh",
            ("dave", "login01")),
    Planted("ssh target", "subprocess.CalledProcessError: Command 'ssh gregor@dgx-a100-03 nvidia-smi' returned non-zero exit status 255.",
            ("gregor", "dgx-a100-03")),
    Planted("USER=", "KeyError: 'HOME' with environment USER=erinm SHELL=/bin/bash", ("erinm",)),
    Planted("username json", 'ValueError: bad login {"username": "harriet", "host": "db"}', ("harriet",)),
    Planted("ipv4 private", "torch.distributed.DistNetworkError: connect to 192.168.17.42 failed", ("192.168.17.42",)),
    Planted("ipv4 with port", "RuntimeError: The server socket has failed to listen on any local network address. "
            "port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, 10.8.0.12:29500", ("10.8.0.12",)),
    Planted("ipv6 in NCCL interface line",
            "gpu-node-17:1234:5678 [0] NCCL WARN Error: NET/Socket : Using [0]ib0:fe80::1ff:fe23:4567:890a%ib0<0>",
            ("fe80::1ff:fe23:4567:890a", "gpu-node-17")),
    Planted("ipv6 address:port", "torch.distributed.DistNetworkError: Connection reset, remote=[2001:db8:85a3::8a2e:370:7334]:29500",
            ("2001:db8:85a3::8a2e:370:7334",)),
    Planted("ipv6 unbracketed port", "ConnectionRefusedError: [Errno 111] connect to 2001:db8:aa:bb::17:29500 refused",
            ("2001:db8:aa:bb::17",)),
    Planted("ec2 host name", "urllib3.exceptions.NameResolutionError: Name or service not known: ip-10-0-1-23.ec2.internal",
            ("10-0-1-23",)),
    Planted("internal host name", "requests.exceptions.ConnectionError: Failed to resolve 'mlflow.research.corp' "
            "([Errno -3] Temporary failure in name resolution)", ("mlflow.research",)),
    Planted("torch elastic host", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: host : trainer-node-09 "
            "rank : 0 exitcode : -9", ("trainer-node-09",)),
    Planted("urllib3 host=", "requests.exceptions.ConnectionError: HTTPConnectionPool(host='inference-07', port=8000): "
            "Max retries exceeded", ("inference-07",)),
    Planted("single-label url host", "openai.APIConnectionError: Connection error to http://vllmbox:8000/v1/chat/completions",
            ("vllmbox",)),
    Planted("cluster.local host", "grpc.RpcError: failed to connect to all addresses; ray-head.ml-team.svc.cluster.local:10001",
            ("ray-head.ml-team",)),
    Planted("master addr", "torch.distributed.DistStoreError: timed out with MASTER_ADDR=gpu-master-2 MASTER_PORT=29500",
            ("gpu-master-2",)),
)

N_SECRETS = sum(len(p.secrets) for p in CORPUS)
KINDS = {p.kind for p in CORPUS}
