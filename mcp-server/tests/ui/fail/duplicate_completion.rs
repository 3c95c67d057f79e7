//! One completion per argument: `r#language` is the argument `language` too.

use typemcp_server::prompt;

async fn languages(_request: typemcp_server::CompletionRequest) -> Vec<String> {
    Vec::new()
}

#[prompt(complete(language = languages), complete(r#language = languages))]
async fn review(language: String) -> String {
    language
}

fn main() {}
