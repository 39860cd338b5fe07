import Foundation
import MedleyCore
import MedleyFilters
import MedleyYAML

/// `medley completions bash|zsh|fish`: a completion script made from the command table, so it
/// completes every command and option that `--help` lists. What depends on the line (the job
/// names of the pipeline file on it) or on the catalogue (filter names) the script asks the
/// hidden `medley complete` for.
enum CompletionsCommand {
    static let shells = ["bash", "zsh", "fish"]

    /// Where each shell finds a completion script, as a command that puts it there.
    static let install: [(command: String, note: String)] = [
        ("medley completions bash > /etc/bash_completion.d/medley", "bash, for everyone (or ~/.local/share/bash-completion/completions/medley)"),
        ("medley completions zsh > \"${fpath[1]}/_medley\"", "zsh: any folder on $fpath, then a new shell"),
        ("medley completions fish > ~/.config/fish/completions/medley.fish", "fish"),
    ]

    static let command = Command(
        "completions", operands: "bash | zsh | fish",
        summary: """
            Prints a completion script for the shell: it completes commands, each command's options,
            pipeline files, the job names of the pipeline file on the line (run pipe.yaml --only <TAB>)
            and filter names (filters describe <TAB>).
            """,
        options: [],
        notes: """
            Install: \(install.map(\.command).joined(separator: "; ")). To try one in the running shell:
            source <(medley completions bash). Exit codes: 0 printed, 2 unknown shell.
            """,
        completes: [.words(shells)],
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        guard parsed.positional.count == 1, let shell = parsed.positional.first else {
            throw UsageError("name one shell: bash, zsh or fish", showsUsage: true)
        }
        switch shell {
        case "bash": print(CompletionScripts.bash, terminator: "")
        case "zsh": print(CompletionScripts.zsh, terminator: "")
        case "fish": print(CompletionScripts.fish, terminator: "")
        default:
            throw UsageError("no completions for '\(shell)': use bash, zsh or fish"
                             + (nearest(shell, in: shells).map { "; did you mean '\($0)'?" } ?? ""))
        }
        return 0
    }
}

/// `medley complete jobs FILE` and `medley complete filters`: the words a completion script
/// cannot know when it is written, one a line. Quiet: a file that is not a pipeline yet (the
/// user is still typing it) gives no words and no message.
enum CompleteCommand {
    static let command = Command(
        "complete", operands: "jobs FILE | filters",
        summary: "Prints the words a shell completion offers, one a line (used by 'medley completions').",
        options: [],
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        switch parsed.positional.first {
        case "filters":
            FilterRegistry.names.forEach { print($0) }
            return 0
        case "jobs":
            guard parsed.positional.count == 2 else { return 1 }
            let names = jobNames(ofPipelineAt: parsed.positional[1])
            names.forEach { print($0) }
            return names.isEmpty ? 1 : 0
        default:
            return 2
        }
    }

    /// The `name:` of each entry under `jobs:`, read from the YAML alone (no validation: the
    /// pipeline may name folders that do not exist yet).
    static func jobNames(ofPipelineAt path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4 << 20,
              let root = try? YAMLReader.parse(String(decoding: data, as: UTF8.self)),
              case .mapping(let pairs, _) = root,
              let jobs = pairs.first(where: { $0.key.scalarText == "jobs" })?.value,
              case .sequence(let entries, _) = jobs else { return [] }
        return entries.compactMap { entry in
            guard case .mapping(let fields, _) = entry else { return nil }
            // Only names a shell word can hold as it is typed.
            return fields.first(where: { $0.key.scalarText == "name" })?.value.scalarText
                .flatMap { $0.isEmpty || $0.contains(where: { $0.isWhitespace || $0.isNewline }) ? nil : $0 }
        }
    }
}

/// The three scripts, each made from `CommandLineInterface.commands`.
enum CompletionScripts {
    static var commands: [Command] { CommandLineInterface.commands }

    /// The first line of an option's or command's help, for the shells that show descriptions.
    static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n", omittingEmptySubsequences: true).first ?? "")
    }

    /// The first sentence of a command's summary, on one line.
    static func gist(_ command: Command) -> String {
        let flat = command.summary.split(whereSeparator: \.isNewline).joined(separator: " ")
        var gist = flat.range(of: ". ").map { String(flat[..<$0.lowerBound]) } ?? (flat.hasSuffix(".") ? String(flat.dropLast()) : flat)
        // A long sentence ends at its first aside or list.
        if gist.count > 70, let cut = [" (", ":", ";", " —"].compactMap({ gist.range(of: $0, range: gist.index(gist.startIndex, offsetBy: 25)..<gist.endIndex)?.lowerBound }).min() {
            gist = String(gist[..<cut])
        }
        return gist
    }

    /// Every way an option is written: "-j", "--jobs".
    static func forms(_ option: Option) -> [String] {
        (option.short.map { ["-\($0)"] } ?? []) + [option.name]
    }

    /// A completion as a word the shell functions below take.
    static func kind(_ completion: Completion) -> String {
        switch completion {
        case .nothing: return "nothing"
        case .files: return "files"
        case .folders: return "folders"
        case .pipelineFiles: return "pipelines"
        case .jobs: return "jobs"
        case .filters: return "filters"
        case .words(let words): return "words:" + words.joined(separator: " ")
        }
    }

    /// Text inside single quotes in any of the three shells.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    static let header = "(generated by 'medley completions' from medley's command table; do not edit)"

    // MARK: bash

    static var bash: String {
        var script = """
            # bash completion for medley \(header)
            # Install: medley completions bash > /etc/bash_completion.d/medley
            # (or ~/.local/share/bash-completion/completions/medley), or: source <(medley completions bash)

            # The pipeline file on the line: the first word after the command ending in .yaml or .yml.
            _medley_pipeline() {
                local i
                for (( i = 2; i < ${#COMP_WORDS[@]}; i++ )); do
                    case ${COMP_WORDS[i]} in *.yaml|*.yml) printf '%s\\n' "${COMP_WORDS[i]}"; return ;; esac
                done
            }

            # _medley_offer KIND WORD: sets COMPREPLY to the completions of WORD as KIND.
            _medley_offer() {
                local IFS=$'\\n' file
                case $1 in
                    files) COMPREPLY=( $(compgen -f -- "$2") ) ;;
                    folders) COMPREPLY=( $(compgen -d -- "$2") ) ;;
                    pipelines) COMPREPLY=( $(compgen -d -- "$2") $(compgen -G "$2*.yaml") $(compgen -G "$2*.yml") ) ;;
                    jobs) file=$(_medley_pipeline)
                        [[ -n $file ]] && COMPREPLY=( $(compgen -W "$(command medley complete jobs "$file" 2>/dev/null)" -- "$2") ) ;;
                    filters) COMPREPLY=( $(compgen -W "$(command medley complete filters 2>/dev/null)" -- "$2") ) ;;
                    words:*) IFS=' '; COMPREPLY=( $(compgen -W "${1#words:}" -- "$2") ) ;;
                    *) COMPREPLY=() ;;
                esac
            }

            # _medley_operand_index 'OPTIONS THAT TAKE A VALUE': how many operands stand before the cursor.
            _medley_operand_index() {
                local i n=0 word
                for (( i = 2; i < COMP_CWORD; i++ )); do
                    word=${COMP_WORDS[i]}
                    if [[ $word == = ]]; then (( i++ )); continue; fi
                    if [[ $word == -* ]]; then
                        [[ " $1 " == *" $word "* && ${COMP_WORDS[i+1]} != = ]] && (( i++ ))
                        continue
                    fi
                    (( n++ ))
                done
                echo "$n"
            }

            _medley() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
                # --option=value: bash splits the word at '='.
                if [[ $cur == = ]]; then cur=
                elif [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}
                fi
                if (( COMP_CWORD == 1 )); then
                    _medley_offer \(quoted("words:" + (commands.map(\.name) + ["help", "--help", "--version"]).joined(separator: " "))) "$cur"
                    return
                fi
                local valued operands
                case ${COMP_WORDS[1]} in
                    help) (( COMP_CWORD == 2 )) && _medley_offer \(quoted("words:" + commands.map(\.name).joined(separator: " "))) "$cur"; return ;;

            """
        for command in commands {
            let options = command.allOptions
            let valued = options.filter { $0.value != nil }
            script += "        \(command.name))\n"
            let cases = valued.filter { $0.completion != .nothing }
            let quiet = valued.filter { $0.completion == .nothing }
            if !valued.isEmpty {
                script += "            case $prev in\n"
                for option in cases {
                    script += "                \(forms(option).joined(separator: "|"))) _medley_offer \(quoted(kind(option.completion))) \"$cur\"; return ;;\n"
                }
                if !quiet.isEmpty {
                    script += "                \(quiet.flatMap(forms).joined(separator: "|"))) return ;;\n"
                }
                script += "            esac\n"
            }
            script += "            if [[ $cur == -* ]]; then _medley_offer \(quoted("words:" + options.flatMap(forms).joined(separator: " "))) \"$cur\"; return; fi\n"
            script += "            valued=\(quoted(valued.flatMap(forms).joined(separator: " ")))\n"
            script += "            operands=(" + command.operandCompletions.map { quoted(kind($0)) }.joined(separator: " ") + ") ;;\n"
        }
        script += """
                    *) return ;;
                esac
                (( ${#operands[@]} )) || return
                local index
                index=$(_medley_operand_index "$valued")
                (( index < ${#operands[@]} )) || index=$(( ${#operands[@]} - 1 ))
                _medley_offer "${operands[index]}" "$cur"
            }

            complete -o filenames -F _medley medley

            """
        return script
    }

    // MARK: zsh

    static func zshDescribed(_ name: String, _ description: String) -> String {
        quoted(name.replacingOccurrences(of: ":", with: "\\:") + ":" + description)
    }

    static var zsh: String {
        var script = """
            #compdef medley
            # zsh completion for medley \(header)
            # Install: medley completions zsh > "${fpath[1]}/_medley" (any folder on $fpath), then start a new shell;
            # or: source <(medley completions zsh) after compinit.

            # The pipeline file on the line: the first word after the command ending in .yaml or .yml.
            _medley_pipeline() {
              local word
              for word in ${words[3,-1]}; do
                [[ $word == *.(yaml|yml) ]] && { print -r -- $word; return }
              done
            }

            # _medley_offer KIND: offers the completions of the current word as KIND.
            _medley_offer() {
              local file
              case $1 in
                files) _files ;;
                folders) _files -/ ;;
                pipelines) _files -g '*.(yaml|yml)' ;;
                jobs) file=$(_medley_pipeline)
                  [[ -n $file ]] && compadd -- ${(f)"$(command medley complete jobs ${(Q)file} 2>/dev/null)"} ;;
                filters) compadd -- ${(f)"$(command medley complete filters 2>/dev/null)"} ;;
                words:*) compadd -- ${=1#words:} ;;
              esac
            }

            # _medley_operand_index OPTIONS THAT TAKE A VALUE: how many operands stand before the cursor.
            _medley_operand_index() {
              local -i i n=0
              for (( i = 3; i < CURRENT; i++ )); do
                if [[ ${words[i]} == -* ]]; then
                  [[ ${words[i]} != *=* ]] && (( ${argv[(Ie)${words[i]}]} )) && (( i++ ))
                  continue
                fi
                (( n++ ))
              done
              print -r -- $n
            }

            _medley() {
              local -a commands described valued operands
              commands=(
            \(commands.map { "    " + zshDescribed($0.name, gist($0)) }.joined(separator: "\n"))
              )
              if (( CURRENT == 2 )); then
                _describe -t commands 'medley command' commands
                return
              fi
              local cur=${words[CURRENT]} prev=${words[CURRENT-1]}
              case ${words[2]} in
                help) (( CURRENT == 3 )) && _describe -t commands 'medley command' commands; return ;;

            """
        for command in commands {
            let options = command.allOptions
            let valued = options.filter { $0.value != nil }
            script += "    \(command.name))\n"
            if !valued.isEmpty {
                script += "      case $prev in\n"
                for option in valued {
                    script += "        \(forms(option).joined(separator: "|"))) _medley_offer \(quoted(kind(option.completion))); return ;;\n"
                }
                script += "      esac\n"
            }
            script += "      described=(\n"
            for option in options {
                for form in forms(option) { script += "        " + zshDescribed(form, firstLine(option.help)) + "\n" }
            }
            script += "      )\n"
            script += "      if [[ $cur == -* ]]; then _describe -t options 'option' described; return; fi\n"
            script += "      valued=(" + valued.flatMap(forms).joined(separator: " ") + ")\n"
            script += "      operands=(" + command.operandCompletions.map { quoted(kind($0)) }.joined(separator: " ") + ") ;;\n"
        }
        script += """
                *) return 1 ;;
              esac
              (( ${#operands} )) || return 1
              local -i index
              index=$(_medley_operand_index $valued)
              (( index < ${#operands} )) || index=$(( ${#operands} - 1 ))
              _medley_offer ${operands[index + 1]}
            }

            if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
              _medley "$@"
            else
              compdef _medley medley
            fi

            """
        return script
    }

    // MARK: fish

    static var fish: String {
        var script = """
            # fish completion for medley \(header)
            # Install: medley completions fish > ~/.config/fish/completions/medley.fish

            # The pipeline file on the line: the first word after the command ending in .yaml or .yml.
            function __medley_pipeline
                set -l words (commandline -opc)
                set -e words[1..2]
                for word in $words
                    if string match -qr '\\.ya?ml$' -- $word
                        echo $word
                        return
                    end
                end
            end

            function __medley_jobs
                set -l file (__medley_pipeline)
                and command medley complete jobs $file 2>/dev/null
            end

            # __medley_operands OPTIONS THAT TAKE A VALUE: how many operands stand before the cursor.
            function __medley_operands
                set -l words (commandline -opc)
                set -e words[1..2]
                set -l n 0
                set -l skip 0
                for word in $words
                    if test $skip -eq 1
                        set skip 0
                        continue
                    end
                    if string match -q -- '-*' $word
                        if contains -- $word $argv
                            set skip 1
                        end
                        continue
                    end
                    set n (math $n + 1)
                end
                echo $n
            end

            complete -c medley -f
            complete -c medley -n __fish_use_subcommand -a help -d 'Print a command\\'s help'

            """
        for command in commands {
            script += "\n# \(command.name)\n"
            script += "complete -c medley -n __fish_use_subcommand -a \(command.name) -d \(fishQuoted(gist(command)))\n"
            script += "complete -c medley -n '__fish_seen_subcommand_from help' -a \(command.name) -d \(fishQuoted(gist(command)))\n"
            let seen = "__fish_seen_subcommand_from \(command.name)"
            for option in command.allOptions {
                var line = "complete -c medley -n '\(seen)'"
                if let short = option.short { line += " -s \(short)" }
                line += " -l \(option.name.dropFirst(2))"
                if option.value != nil {
                    switch option.completion {
                    case .files, .pipelineFiles: line += " -r -F"
                    case .folders: line += " -x -a '(__fish_complete_directories)'"
                    case .jobs: line += " -x -a '(__medley_jobs)'"
                    case .filters: line += " -x -a '(command medley complete filters 2>/dev/null)'"
                    case .words(let words): line += " -x -a " + fishQuoted(words.joined(separator: " "))
                    case .nothing: line += " -x"
                    }
                }
                script += line + " -d " + fishQuoted(firstLine(option.help)) + "\n"
            }
            let valued = command.allOptions.filter { $0.value != nil }.flatMap(forms).joined(separator: " ")
            for (index, completion) in command.operandCompletions.enumerated() {
                let last = index == command.operandCompletions.count - 1
                let position = "test (__medley_operands \(valued)) -\(last ? "ge" : "eq") \(index)"
                let condition = fishQuoted("\(seen); and \(position)")
                switch completion {
                case .nothing: continue
                case .files: script += "complete -c medley -n \(condition) -F\n"
                case .folders: script += "complete -c medley -n \(condition) -a '(__fish_complete_directories)'\n"
                case .pipelineFiles: script += "complete -c medley -n \(condition) -a '(__fish_complete_suffix .yaml; __fish_complete_suffix .yml)'\n"
                case .jobs: script += "complete -c medley -n \(condition) -a '(__medley_jobs)'\n"
                case .filters: script += "complete -c medley -n \(condition) -a '(command medley complete filters 2>/dev/null)'\n"
                case .words(let words): script += "complete -c medley -n \(condition) -a \(fishQuoted(words.joined(separator: " ")))\n"
                }
            }
        }
        return script
    }
}
