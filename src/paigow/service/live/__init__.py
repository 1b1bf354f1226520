"""Live feeds: table events and wallet balances pushed to each WebSocket."""
