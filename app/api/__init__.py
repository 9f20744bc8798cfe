"""HTTP and WebSocket routes: accounts, the lobby, the table sockets; shared dependencies."""
