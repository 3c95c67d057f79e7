use typemcp_server::FormChoice;

#[derive(FormChoice)]
enum Region {
    #[serde(rename = "eu")]
    EuCentral,
    #[serde(rename = "eu")]
    EuWest,
}

fn main() {}
