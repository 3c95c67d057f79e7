use typemcp_server::{CompletionRequest, resource};

async fn days(_request: CompletionRequest) -> Vec<String> {
    vec!["today".into()]
}

#[resource(uri = "memo://today", complete(day = days))]
async fn memo() -> &'static str {
    "Buy milk."
}

fn main() {}
