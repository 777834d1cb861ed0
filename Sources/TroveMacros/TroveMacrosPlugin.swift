import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct TroveMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ModelMacro.self, MarkerMacro.self]
}
