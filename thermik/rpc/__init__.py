"""rpc layer (see DESIGN)."""
