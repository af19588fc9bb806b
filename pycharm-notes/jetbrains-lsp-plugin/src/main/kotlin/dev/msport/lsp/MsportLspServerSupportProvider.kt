// msport through JetBrains' built-in LSP API. Not built or run by msport's CI: see ../../README.md.
package dev.msport.lsp

import com.intellij.execution.configurations.GeneralCommandLine
import com.intellij.openapi.project.Project
import com.intellij.openapi.util.SystemInfo
import com.intellij.openapi.vfs.VirtualFile
import com.intellij.platform.lsp.api.LspServerSupportProvider
import com.intellij.platform.lsp.api.ProjectWideLspServerDescriptor

class MsportLspServerSupportProvider : LspServerSupportProvider {
    override fun fileOpened(project: Project, file: VirtualFile, serverStarter: LspServerSupportProvider.LspServerStarter) {
        if (file.extension == "py") {
            serverStarter.ensureServerStarted(MsportLspServerDescriptor(project))
        }
    }
}

private class MsportLspServerDescriptor(project: Project) : ProjectWideLspServerDescriptor(project, "msport") {
    override fun isSupportedFile(file: VirtualFile) = file.extension == "py"

    /** MSPORT_PYTHON, else the project's .venv, else python3 on the PATH; runs `python -m msport serve`. */
    override fun createCommandLine(): GeneralCommandLine {
        val venv = if (SystemInfo.isWindows) ".venv\\Scripts\\python.exe" else ".venv/bin/python"
        val python = System.getenv("MSPORT_PYTHON")
            ?: project.basePath?.let { base -> "$base/$venv".takeIf { java.io.File(it).exists() } }
            ?: "python3"
        return GeneralCommandLine(python, "-m", "msport", "serve").withWorkDirectory(project.basePath)
    }

    /** Settings that override [tool.msport] in pyproject.toml, e.g. mapOf("targetVersion" to "2.5"). */
    override fun createInitializationOptions(): Any = mapOf("settings" to emptyMap<String, Any>())
}
