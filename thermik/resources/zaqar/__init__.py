"""Heat's Zaqar resource types: queues, subscriptions and pre-signed queue URLs."""
