"""actors layer (see DESIGN)."""
