"""Nova resource types and what a server boots with."""
