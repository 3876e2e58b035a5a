package main

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/api"
)

// genericVerbs returns a CLI verb for every command of api.Commands that
// has a verb no hand-written command of root takes: flags are the fields
// of its argument struct (named by their JSON names; strings, integers,
// booleans and string lists; described by their `help` tags), positional
// arguments fill its first string field, and the result is printed as
// JSON. A command added to the api
// package thus appears in the CLI with no edit here. A result with a
// Markdown field prints that without --json.
func genericVerbs(g *globals, root *cobra.Command) []*cobra.Command {
	taken := map[string]bool{}
	for _, c := range root.Commands() {
		taken[c.Name()] = true
	}
	var out []*cobra.Command
	for _, c := range api.Commands {
		if c.Verb() == "" || taken[c.Verb()] {
			continue
		}
		taken[c.Verb()] = true
		out = append(out, genericVerb(g, c))
	}
	return out
}

func genericVerb(g *globals, c api.Command) *cobra.Command {
	args := c.NewArgs()
	v := reflect.ValueOf(args).Elem()
	first := "" // the first string field, filled by positional arguments
	cmd := &cobra.Command{
		Use:   c.Verb(),
		Short: c.Doc(),
		RunE: func(cmd *cobra.Command, pos []string) error {
			if len(pos) > 0 {
				if first == "" || cmd.Flags().Changed(first) {
					return fmt.Errorf("%s takes no positional arguments here", c.Verb())
				}
				_ = cmd.Flags().Set(first, strings.Join(pos, " "))
			}
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			res, err := c.Run(cmd.Context(), b.Interface, args)
			if err != nil {
				return err
			}
			if md, ok := markdownOf(res); ok && !g.json {
				_, err := fmt.Fprint(cmd.OutOrStdout(), md)
				return err
			}
			return printJSON(cmd.OutOrStdout(), res)
		},
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fv := v.Field(i).Addr().Interface()
		usage := f.Tag.Get("help") // the argument's description, where its struct gives one
		if usage == "" {
			usage = fmt.Sprintf("the %q argument of %s", name, c.Name())
		}
		switch p := fv.(type) {
		case *string:
			cmd.Flags().StringVar(p, name, "", usage)
			if first == "" {
				first = name
				cmd.Use += " [" + strings.ToUpper(name) + "]"
			}
		case *int:
			cmd.Flags().IntVar(p, name, 0, usage)
		case *bool:
			cmd.Flags().BoolVar(p, name, false, usage)
		case *[]string:
			cmd.Flags().StringArrayVar(p, name, nil, usage+" (repeatable)")
		}
	}
	if cmd.Short == "" {
		cmd.Short = "Run " + c.Name() + " (docs/commands.md); prints JSON"
	}
	return cmd
}

// markdownOf returns the Markdown field of a result struct, if it has one.
func markdownOf(res any) (string, bool) {
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return "", false
	}
	f := v.FieldByName("Markdown")
	if !f.IsValid() || f.Kind() != reflect.String {
		return "", false
	}
	return f.String(), true
}
