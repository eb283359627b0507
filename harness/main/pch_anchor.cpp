// Anchors the precompiled header that the suites reuse.
