use typemcp_server::resource;

#[resource(uri = "clock://uptime")]
async fn uptime() -> std::time::Duration {
    std::time::Duration::from_secs(1)
}

fn main() {}
