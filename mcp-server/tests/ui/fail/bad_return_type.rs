use typemcp_server::tool;

#[tool]
async fn uptime() -> std::time::Duration {
    std::time::Duration::from_secs(1)
}

fn main() {}
