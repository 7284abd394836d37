//! Criterion benches of flipzero; see `benches/`.
