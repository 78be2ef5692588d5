"""Task definitions: sampling, exact solving and verification (pure; no I/O)."""
