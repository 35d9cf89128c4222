/// `trove help`, declared like a command so completions and the man page list it.
enum HelpTopic {
    static var spec: CommandSpec {
        CommandSpec(
            name: "help", abstract: "Show the help of trove or of one command; --man prints the man page.",
            usage: "trove help [COMMAND | --man]",
            groups: [OptionGroup("Options", [Option("--man", help: "print the man page (roff) instead")])],
            operands: .choice(Launcher.commands.map { Option.Choice($0.name) }))
    }
}
