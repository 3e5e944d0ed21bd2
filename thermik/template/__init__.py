"""template layer (see DESIGN)."""
