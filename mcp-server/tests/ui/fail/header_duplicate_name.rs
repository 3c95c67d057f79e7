//! Header names are case-insensitive: two arguments of one tool cannot share one.

use typemcp_server::tool;

#[tool]
async fn route(
    #[arg(header = "Region")] region: String,
    #[arg(header = "REGION")] fallback: String,
    #[arg(header = "Zone", header = "Zone2")] zone: String,
) -> String {
    format!("{region}{fallback}{zone}")
}

fn main() {}
