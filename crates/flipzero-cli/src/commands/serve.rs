//! `flipzero serve`: the web front-end (crate `flipzero-web`) on a local address.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use clap::Args;

/// Arguments of `flipzero serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The port to listen on (0: any free one, printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on; other machines can reach the page only when this is not
    /// localhost, and nothing on the page asks who is playing.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// A directory whose checkpoints (`*.ckpt`, looked for 4 levels deep) the page may play
    /// and analyse with, named by their path inside it; no other file is ever read.
    #[arg(long)]
    models: Option<PathBuf>,
}

pub(crate) fn run(args: &ServeArgs) -> anyhow::Result<()> {
    let options = flipzero_web::ServeOptions {
        address: SocketAddr::new(args.host, args.port),
        models: args.models.clone(),
    };
    flipzero_web::serve(&options, |address| {
        println!("serving flipzero on http://{address}/ (Ctrl-C stops it)");
        // A script waiting for the line reads it at once.
        let _ = std::io::stdout().flush();
    })
}
