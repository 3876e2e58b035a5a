package lsp

import (
	"encoding/json"

	"github.com/gloss-dev/gloss/api"
)

// The subset of LSP 3.17 types gloss uses. Positions are in the negotiated
// encoding (UTF-16 code units by default, bytes with "utf-8").

// Position is a zero-based line and character offset (api.Position).
type Position = api.Position

// Range is a half-open range of positions (api.Range).
type Range = api.Range

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// TextDocumentItem is an opened document.
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

// WorkspaceFolder is one root of the workspace.
type WorkspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type initializeParams struct {
	ProcessID        *int               `json:"processId"`
	RootURI          string             `json:"rootUri"`
	RootPath         string             `json:"rootPath"`
	WorkspaceFolders []WorkspaceFolder  `json:"workspaceFolders"`
	Capabilities     clientCapabilities `json:"capabilities"`
	WorkDoneToken    json.RawMessage    `json:"workDoneToken"`
	// InitializationOptions are gloss's own: {"initialCheck": false}
	// skips the check of every folder after initialized and
	// {"watchFiles": false} the server's own file watcher of a client
	// without workspace/didChangeWatchedFiles (both for short-lived
	// clients such as CLI calls through the daemon).
	// (Any other JSON value, such as the [] some clients send for an
	// empty table, means no options.)
	InitializationOptions json.RawMessage `json:"initializationOptions"`
}

type clientCapabilities struct {
	General struct {
		PositionEncodings []string `json:"positionEncodings"`
	} `json:"general"`
	Workspace struct {
		CodeLens struct {
			RefreshSupport bool `json:"refreshSupport"`
		} `json:"codeLens"`
		Diagnostics struct {
			RefreshSupport bool `json:"refreshSupport"`
		} `json:"diagnostics"`
		DidChangeWatchedFiles struct {
			DynamicRegistration bool `json:"dynamicRegistration"`
		} `json:"didChangeWatchedFiles"`
	} `json:"workspace"`
	Window struct {
		WorkDoneProgress bool `json:"workDoneProgress"`
		ShowDocument     struct {
			Support bool `json:"support"`
		} `json:"showDocument"`
	} `json:"window"`
}

type didOpenParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

type contentChange struct {
	Range *Range `json:"range"`
	Text  string `json:"text"`
}

type didChangeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int    `json:"version"`
	} `json:"textDocument"`
	ContentChanges []contentChange `json:"contentChanges"`
}

type didSaveParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Text         *string                `json:"text"`
}

type didCloseParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

type fileEvent struct {
	URI  string `json:"uri"`
	Type int    `json:"type"` // 1 created, 2 changed, 3 deleted
}

// fileDeleted is FileChangeType Deleted (LSP 3.17).
const fileDeleted = 3

type didChangeWatchedFilesParams struct {
	Changes []fileEvent `json:"changes"`
}

type textDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// MarkupContent is formatted text.
type MarkupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// Hover is a hover result.
type Hover struct {
	Contents MarkupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// Command is a client-side reference to an executeCommand command.
type Command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

// CodeLens is a command shown above a range.
type CodeLens struct {
	Range   Range    `json:"range"`
	Command *Command `json:"command,omitempty"`
}

type codeLensParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// Diagnostic is a problem report.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity"`
	Code     string          `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
	Data     json.RawMessage `json:"data,omitempty"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type codeActionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
	Context      struct {
		Diagnostics []Diagnostic `json:"diagnostics"`
		Only        []string     `json:"only"`
	} `json:"context"`
}

// CodeAction is a command offered for a range or diagnostics.
type CodeAction struct {
	Title       string       `json:"title"`
	Kind        string       `json:"kind"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	IsPreferred bool         `json:"isPreferred,omitempty"`
	Command     *Command     `json:"command,omitempty"`
}

type executeCommandParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments"`
	WorkDoneToken json.RawMessage   `json:"workDoneToken,omitempty"`
}

type workspaceSymbolParams struct {
	Query string `json:"query"`
}

// SymbolInformation is a workspace/symbol result.
type SymbolInformation struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      Location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}

type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

type progressParams struct {
	Token any `json:"token"`
	Value any `json:"value"`
}

type workDoneProgress struct {
	Kind        string `json:"kind"`
	Title       string `json:"title,omitempty"`
	Message     string `json:"message,omitempty"`
	Percentage  *int   `json:"percentage,omitempty"`
	Cancellable bool   `json:"cancellable,omitempty"`
}

type registration struct {
	ID              string `json:"id"`
	Method          string `json:"method"`
	RegisterOptions any    `json:"registerOptions,omitempty"`
}

type showDocumentParams struct {
	URI       string `json:"uri"`
	External  bool   `json:"external,omitempty"`
	TakeFocus bool   `json:"takeFocus,omitempty"`
	Selection *Range `json:"selection,omitempty"`
}

// Diagnostic codes and severity.
const (
	CodeStale            = "stale-memory"
	CodeSignatureChanged = "signature-changed"
	CodeAnchorLost       = "anchor-lost"
	severityWarning      = 2
)

// glossInitOptions are gloss's initializationOptions.
type glossInitOptions struct {
	InitialCheck *bool `json:"initialCheck"`
	// WatchFiles false: no own file watcher (startWatcher) for a client
	// that does not register workspace/didChangeWatchedFiles; a one-call
	// session would walk and watch every directory of its folders only
	// to close the watcher again.
	WatchFiles *bool `json:"watchFiles"`
}

// initOptions decodes raw initializationOptions; anything but an object
// gives the defaults.
func initOptions(raw json.RawMessage) glossInitOptions {
	var o glossInitOptions
	_ = json.Unmarshal(raw, &o)
	return o
}
