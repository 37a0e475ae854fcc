"""Layer ``ui``: People at the table: the terminal (line mode and full screen) and the web server.

See docs/architecture.md (the layers and the import rule)."""
