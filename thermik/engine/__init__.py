"""engine layer (see DESIGN)."""
