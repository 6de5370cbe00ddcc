package door_test

import (
	"go/ast"
	"go/types"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const doorPkg = "github.com/fleetgate/fleetgate/internal/door"

// TestEveryPathToARobotPassesTheDoor reads the whole module (not its tests) with its types
// and holds the two rules that make the door the only way to a robot's input streams:
//
//  1. A Command reaches a robot source only from the door: outside package door, a call that
//     passes a door.Command is allowed only inside a Publish(ctx, door.Command) method that
//     hands on the very Command it was given (a decorator). Any other way to hand a source a
//     command fails here, whatever the source.
//  2. Every place that enters the door (Door.Send, Door.Take, and the handover's Door.Request
//     and Door.Override) is a path listed in the doors
//     table of docs/reliability.md with the checks it passes: a new path fails here until it
//     is documented, and a documented path that is gone fails too.
func TestEveryPathToARobotPassesTheDoor(t *testing.T) {
	pkgs := loadModule(t)
	var command types.Type
	for _, p := range pkgs {
		if p.PkgPath == doorPkg {
			command = p.Types.Scope().Lookup("Command").Type()
		}
	}
	if command == nil {
		t.Fatal("package door has no Command type")
	}
	entries := map[string]bool{} // functions that call Door.Send, Take, Request or Override
	for _, p := range pkgs {
		if p.PkgPath == doorPkg {
			continue
		}
		// Test helpers (doortest, fleettest...) serve tests only; no product code may use the
		// one that drives robots.
		if strings.HasSuffix(p.PkgPath, "test") {
			continue
		}
		if _, ok := p.Imports[doorPkg+"/doortest"]; ok {
			t.Errorf("%s imports doortest: only tests may", p.PkgPath)
		}
		for _, f := range p.Syntax {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				name := funcName(p, fn)
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if lit, ok := n.(*ast.CompositeLit); ok && types.Identical(p.TypesInfo.TypeOf(lit), command) {
						t.Errorf("%s: %s makes a door.Command: only the door makes them", p.Fset.Position(lit.Pos()), name)
					}
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if callee := calleeOf(p, call); callee != nil && callee.Pkg() != nil && callee.Pkg().Path() == doorPkg &&
						recvName(callee) == "Door" && slices.Contains(entryMethods, callee.Name()) {
						entries[name] = true
					}
					for _, arg := range call.Args {
						if !types.Identical(p.TypesInfo.TypeOf(arg), command) {
							continue
						}
						if !forwardsItsOwnCommand(p, fn, arg) {
							t.Errorf("%s: %s hands a door.Command to %s outside the door", p.Fset.Position(call.Pos()), name, types.ExprString(call.Fun))
						}
					}
					return true
				})
			}
		}
	}
	documented := documentedEntries(t)
	var found []string
	for name := range entries {
		found = append(found, name)
	}
	sort.Strings(found)
	for _, name := range found {
		if !slices.Contains(documented, name) {
			t.Errorf("%s enters the door but is not a path of the doors table in docs/reliability.md: add it, with the checks it passes", name)
		}
	}
	for _, name := range documented {
		if !entries[name] {
			t.Errorf("docs/reliability.md lists %s as a path into the door, but it does not enter the door", name)
		}
	}
	if len(found) == 0 {
		t.Fatal("no path enters the door: the test does not see the code")
	}
	t.Logf("paths into the door: %v", found)
}

// entryMethods are the Door's methods that give a control or publish: each is a way in.
var entryMethods = []string{"Send", "Take", "Request", "Override"}

func loadModule(t *testing.T) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports,
		Dir:  "../..",
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		t.Fatalf("%d errors loading the module", n)
	}
	return pkgs
}

// funcName is pkgname.Func or pkgname.(*Recv).Method, as the doors table names them.
func funcName(p *packages.Package, fn *ast.FuncDecl) string {
	name := p.Name + "."
	if fn.Recv != nil && len(fn.Recv.List) == 1 {
		recv := types.ExprString(fn.Recv.List[0].Type)
		if strings.HasPrefix(recv, "*") {
			recv = "(" + recv + ")"
		}
		name += recv + "."
	}
	return name + fn.Name.Name
}

func calleeOf(p *packages.Package, call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch fun := call.Fun.(type) {
	case *ast.SelectorExpr:
		id = fun.Sel
	case *ast.Ident:
		id = fun
	default:
		return nil
	}
	f, _ := p.TypesInfo.Uses[id].(*types.Func)
	return f
}

func recvName(f *types.Func) string {
	sig, ok := f.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if named, ok := t.(*types.Named); ok {
		return named.Obj().Name()
	}
	return ""
}

// forwardsItsOwnCommand reports whether arg is the door.Command parameter of fn, a method
// named Publish: a decorator handing on what the door gave it.
func forwardsItsOwnCommand(p *packages.Package, fn *ast.FuncDecl, arg ast.Expr) bool {
	id, ok := arg.(*ast.Ident)
	if !ok || fn.Recv == nil || fn.Name.Name != "Publish" {
		return false
	}
	for _, field := range fn.Type.Params.List {
		for _, name := range field.Names {
			if p.TypesInfo.Defs[name] != nil && p.TypesInfo.Defs[name] == p.TypesInfo.Uses[id] {
				return true
			}
		}
	}
	return false
}

// documentedEntries reads the "enters the door at" column of the doors table.
func documentedEntries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "<!-- doors table -->")
	end := strings.Index(text, "<!-- end of the doors table -->")
	if start < 0 || end < start {
		t.Fatal("docs/reliability.md has no doors table (<!-- doors table --> ... <!-- end of the doors table -->)")
	}
	var out []string
	cell := regexp.MustCompile("door at `([^`]+)`")
	for _, m := range cell.FindAllStringSubmatch(text[start:end], -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}
