//! One module per subcommand.

pub(crate) mod perft;
pub(crate) mod replay;
pub(crate) mod solve;
pub(crate) mod variants;
