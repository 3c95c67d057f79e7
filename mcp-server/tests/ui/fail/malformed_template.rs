use typemcp_server::resource;

#[resource(template = "notes://{id")]
async fn note(id: String) -> String {
    id
}

fn main() {}
