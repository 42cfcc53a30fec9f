"""Berth's adapter around aegra-api: the reference image's contract for an open, durable server."""
