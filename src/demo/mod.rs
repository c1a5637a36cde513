//! The built-in demo server (placeholder; being written).
