use typemcp_server::resource;

#[resource(mime_type = "text/plain")]
async fn memo() -> &'static str {
    "Buy milk."
}

fn main() {}
