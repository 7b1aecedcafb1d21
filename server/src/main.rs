//! The `fourkings` binary.
fn main() {}
