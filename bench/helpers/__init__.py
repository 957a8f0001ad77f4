"""Code the benches share (not benches themselves: nothing here runs on its own)."""
