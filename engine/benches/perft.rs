//! Perft benchmark (placeholder until the criterion bench is written).
fn main() {}
