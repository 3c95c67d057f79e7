use typemcp_server::resource;

#[resource(uri = "notes://1", template = "notes://{id}")]
async fn note(id: String) -> String {
    id
}

fn main() {}
