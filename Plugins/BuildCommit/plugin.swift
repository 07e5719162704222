import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` (the checkout's commit, and whether it had uncommitted changes) into the build before
/// every build of the target it is attached to, so `carillon --version` names the commit the binary was built from.
/// Outside a git checkout (a source archive) the commit reads `unknown`. The file is rewritten only when its content
/// changes, so an unchanged checkout recompiles nothing.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildCommit.swift")
        let script = """
            cd "$1" || exit 0
            commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
            dirty=false
            if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then dirty=true; fi
            text="/// The commit this binary was built from (written by the BuildCommit plugin).
            enum BuildCommit {
                /// The short commit hash, or \\"unknown\\" outside a git checkout.
                static let hash = \\"$commit\\"
                /// Whether the checkout had uncommitted changes to tracked files.
                static let dirty = $dirty
            }"
            if [ "$(cat "$2" 2>/dev/null)" != "$text" ]; then printf '%s\\n' "$text" > "$2"; fi
            """
        return [.prebuildCommand(
            displayName: "Recording the build's commit",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
            outputFilesDirectory: context.pluginWorkDirectoryURL)]
    }
}
