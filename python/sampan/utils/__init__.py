"""sampan.utils: tools around the engine (``cpp_extension`` for just-in-time custom ops lives
here when built)."""
