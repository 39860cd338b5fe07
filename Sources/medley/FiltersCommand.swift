import Foundation
import MedleyCore
import MedleyFilters

enum FiltersCommand {
    static let command = Command(
        "filters", operands: "[list | describe NAME]",
        summary: """
            Lists the filters, or prints one filter's attributes as CIFilter.attributes would:
            display name, categories, and per parameter its type, default, identity, min, max,
            slider range and description.
            """,
        options: [
            Option("--category", value: "C", "list only the filters of category C (e.g. CICategoryColorEffect)"),
            Option("--json", "print JSON instead of text"),
        ],
        notes: "Exit codes: 0 listed or described, 2 unknown filter, verb or option.",
        completes: [.words(["list", "describe"]), .filters],
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        let json = parsed.flag("--json")
        let verb = parsed.positional.first ?? "list"
        switch verb {
        case "list":
            guard parsed.positional.count <= 1 else { throw UsageError("'filters list' takes no names; use 'filters describe NAME'") }
            let names = parsed.value("--category").map(FilterRegistry.names(inCategory:)) ?? FilterRegistry.names
            if let category = parsed.value("--category"), names.isEmpty {
                throw UsageError("no filters in category '\(category)'")
            }
            if json {
                print(JSONValue.array(names.map { .string($0) }).rendered(pretty: true))
            } else {
                for name in names {
                    let attributes = FilterRegistry.attributes(of: name)!
                    print(name.padding(toLength: 28, withPad: " ", startingAt: 0) + attributes.displayName
                          + "  [" + (attributes.categories.first ?? "") + "]")
                }
            }
        case "describe":
            guard parsed.positional.count == 2 else { throw UsageError("usage: medley filters describe NAME [--json]") }
            let name = parsed.positional[1]
            guard let attributes = FilterRegistry.attributes(of: name) else {
                throw UsageError("unknown filter '\(name)'"
                                 + (FilterRegistry.suggestion(for: name).map { "; did you mean '\($0)'?" } ?? ""))
            }
            print(json ? attributes.json.rendered(pretty: true) : attributes.text)
        default:
            throw UsageError("unknown verb '\(verb)': use 'list' or 'describe NAME'")
        }
        return 0
    }
}
