use typemcp_server::{CompletionRequest, prompt};

async fn languages(_request: CompletionRequest) -> Vec<String> {
    vec!["rust".into()]
}

#[prompt(complete(nope = languages))]
async fn review(code: String, language: String) -> String {
    format!("Review this {language} code:\n{code}")
}

fn main() {}
