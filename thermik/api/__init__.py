"""api layer (see DESIGN)."""
