use typemcp_server::prompt;

#[prompt]
async fn greet(name: String) -> std::time::Duration {
    let _ = name;
    std::time::Duration::from_secs(1)
}

fn main() {}
