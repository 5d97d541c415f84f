import ArgumentParser

/// `--log-format`.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
