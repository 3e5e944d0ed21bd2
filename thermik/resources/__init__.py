"""resources layer (see DESIGN)."""
