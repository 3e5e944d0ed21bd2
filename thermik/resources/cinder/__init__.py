"""Cinder resource types: volumes, their attachments to servers, volume types and quotas."""
