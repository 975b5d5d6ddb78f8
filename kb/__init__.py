"""The knowledge-base engine: load guides, parse pastes, match, render. No Streamlit here."""
