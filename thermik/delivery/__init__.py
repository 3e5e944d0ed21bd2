"""delivery layer (see DESIGN)."""
