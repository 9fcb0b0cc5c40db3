"""One module per scenario: `run(kiosk, box)` checks one thing a kiosk does."""
