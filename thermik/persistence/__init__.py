"""persistence layer (see DESIGN)."""
