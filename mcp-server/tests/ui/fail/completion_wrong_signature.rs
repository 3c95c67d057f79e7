use typemcp_server::prompt;

fn languages() -> Vec<String> {
    vec!["rust".into()]
}

#[prompt(complete(language = languages))]
async fn review(code: String, language: String) -> String {
    format!("Review this {language} code:\n{code}")
}

fn main() {}
