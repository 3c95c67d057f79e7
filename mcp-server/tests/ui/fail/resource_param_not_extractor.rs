use typemcp_server::resource;

#[resource(uri = "memo://today")]
async fn memo(x: String) -> String {
    x
}

fn main() {}
