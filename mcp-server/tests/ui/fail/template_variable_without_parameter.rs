use typemcp_server::resource;

#[resource(template = "notes://{id}")]
async fn note() -> String {
    String::from("a note")
}

fn main() {}
