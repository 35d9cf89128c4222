import TroveCLI

@main
struct Entrypoint {
    static func main() async {}
}
