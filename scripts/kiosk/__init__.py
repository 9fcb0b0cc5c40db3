"""The kiosk system test (scripts/kiosk-system-test), one module per concern."""
