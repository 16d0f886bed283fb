# tests/: unit tests (tests/unit), integration tests on loopback (tests/integration).
