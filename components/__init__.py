"""Streamlit pages and pieces. They call the engine in kb/ and hold no matching logic."""
