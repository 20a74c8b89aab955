#include "completion.hpp"
#include "commands.hpp"

#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace rblkctl {
namespace {

std::vector<std::string> completion_shells()
{
    return {kCompletionShells.begin(), kCompletionShells.end()};
}

// What the value of an option or positional may be, for either shell.
struct Source {
    enum Kind { Controllers, Subnqns, Files, Words } kind;
    std::vector<std::string> words = {};  // Words: these
};

// Keys: "SUBCOMMAND NAME", NAME being the option's long form or the
// positional's name; "* NAME" for any subcommand.
const std::map<std::string, Source>& value_sources()
{
    static const Source rdma{Source::Words, {"rdma"}};
    static const Source formats{Source::Words, {"normal", "json"}};
    static const std::map<std::string, Source> sources = {
        {"* name", {Source::Controllers}},
        {"* file", {Source::Files}},
        {"connect --transport", rdma},
        {"discover --transport", rdma},
        {"connect-all --transport", rdma},
        {"discover --output-format", formats},
        {"connect-all --output-format", formats},
        {"connect-all --config", {Source::Files}},
        {"disconnect --nqn", {Source::Subnqns}},
        {"set-iopolicy subsystem", {Source::Subnqns}},
        {"bench --filename", {Source::Files}},
        {"bench --rw", {Source::Words, {"read", "write", "randread", "randwrite", "randrw"}}},
        {"bench --path", {Source::Words, {"kernel", "bypass"}}},
        {"read --data", {Source::Files}},
        {"write --data", {Source::Files}},
        {"read --path", {Source::Words, {"bypass"}}},
        {"write --path", {Source::Words, {"bypass"}}},
        {"read --transport", rdma},
        {"write --transport", rdma},
        {"completion shell", {Source::Words, completion_shells()}},
    };
    return sources;
}

const Source* source_for(const std::string& sub, const std::string& name)
{
    const auto& sources = value_sources();
    for (const std::string& key : {sub + " " + name, "* " + name})
        if (auto it = sources.find(key); it != sources.end())
            return &it->second;
    return nullptr;
}

std::string join(const std::vector<std::string>& words, const char* sep = " ")
{
    std::string s;
    for (const std::string& w : words)
        s += (s.empty() ? "" : sep) + w;
    return s;
}

// The bash commands printing a source's candidates a line each.
std::string bash_command(const Source& src)
{
    switch (src.kind) {
    case Source::Controllers: return "_rblkctl_controllers";
    case Source::Subnqns: return "_rblkctl_subnqns";
    case Source::Files: return "compgen -f -- \"$cur\"";
    case Source::Words: break;
    }
    return "printf '%s\\n' " + join(src.words);
}

// The zsh _arguments action completing a source.
std::string zsh_action(const Source* src)
{
    if (!src)
        return "";  // a free value: zsh shows the message only
    switch (src->kind) {
    case Source::Controllers: return "_rblkctl_controllers";
    case Source::Subnqns: return "_rblkctl_subnqns";
    case Source::Files: return "_files";
    case Source::Words: break;
    }
    return "(" + join(src->words) + ")";
}

struct OptionInfo {
    std::vector<std::string> shorts, longs;  // without dashes
    std::string description;
    bool takes_value = false;
    bool value_optional = false;    // stats --watch [SECONDS]
    const Source* source = nullptr;  // of a valued option with a long name

    std::vector<std::string> spellings() const  // -a --traddr
    {
        std::vector<std::string> names;
        for (const std::string& s : shorts)
            names.push_back("-" + s);
        for (const std::string& l : longs)
            names.push_back("--" + l);
        return names;
    }
};

struct Subcommand {
    std::string name;
    std::string description;
    std::vector<OptionInfo> options;
    std::string positional_name;         // empty: none
    const Source* positional = nullptr;  // candidates for the first positional
};

Subcommand describe(const CLI::App& sub)
{
    Subcommand d{sub.get_name(), sub.get_description(), {}, {}, nullptr};
    for (const CLI::Option* opt : sub.get_options()) {
        if (opt->get_positional()) {
            if (d.positional_name.empty()) {
                d.positional_name = opt->get_name();
                d.positional = source_for(d.name, opt->get_name());
            }
            continue;
        }
        OptionInfo info{opt->get_snames(), opt->get_lnames(), opt->get_description(),
                        opt->get_expected_max() > 0, opt->get_expected_min() == 0, nullptr};
        if (info.takes_value && !info.longs.empty())
            info.source = source_for(d.name, "--" + info.longs.front());
        d.options.push_back(std::move(info));
    }
    return d;
}

std::vector<Subcommand> describe_all(const CLI::App& app)
{
    std::vector<Subcommand> subs;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        subs.push_back(describe(*sub));
    return subs;
}

constexpr const char* kPrologue = R"(# bash completion for rblkctl
# Generated by `rblkctl completion bash` from rblkctl's command line: do not
# edit, rebuild instead.

_rblkctl_controllers() {
	local d
	for d in /sys/class/rblk/*; do
		[ -e "$d" ] && echo "${d##*/}"
	done
	return 0
}

_rblkctl_subnqns() { cat /sys/class/rblk/*/subnqn 2> /dev/null | sort -u; }

# _rblkctl_reply CMD...: COMPREPLY from CMD's lines that start with $cur.
_rblkctl_reply() {
	local line
	COMPREPLY=()
	while IFS= read -r line; do
		[[ $line == "$cur"* ]] && COMPREPLY+=("$line")
	done < <("$@")
	# An NQN's ':' splits words for readline: offer only what follows it.
	if declare -F __ltrim_colon_completions > /dev/null; then
		__ltrim_colon_completions "$cur"
	fi
	return 0
}

_rblkctl() {
	local cur prev words cword sub="" i
	if declare -F _get_comp_words_by_ref > /dev/null; then
		_get_comp_words_by_ref -n =: cur prev words cword
	else
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
		cur=${words[cword]} prev=${words[cword - 1]:-}
		# Without bash-completion, "--rw=ra" arrives as "--rw" "=" "ra".
		if [ "$cur" = "=" ]; then
			cur=""
		elif [ "$prev" = "=" ] && [ "$cword" -ge 2 ]; then
			prev=${words[cword - 2]}
		fi
	fi
	if [[ $cur == --*=* ]]; then
		prev=${cur%%=*} cur=${cur#*=}
	fi
)";

}  // namespace

std::string bash_completion(const CLI::App& app)
{
    const std::vector<Subcommand> subs = describe_all(app);
    std::vector<std::string> names, top_options;
    for (const Subcommand& d : subs)
        names.push_back(d.name);
    for (const CLI::Option* opt : app.get_options())
        for (const std::string& l : opt->get_lnames())
            top_options.push_back("--" + l);

    std::ostringstream s;
    s << kPrologue;
    s << "\tfor ((i = 1; i < cword; i++)); do\n"
      << "\t\tcase ${words[i]} in\n"
      << "\t\t" << join(names, "|") << ") sub=${words[i]}; break ;;\n"
      << "\t\tesac\n"
      << "\tdone\n\n";

    // The value of the option just before the cursor.
    s << "\tcase \"$sub $prev\" in\n";
    for (const Subcommand& d : subs)
        for (const OptionInfo& o : d.options) {
            if (!o.takes_value || o.longs.empty())
                continue;
            std::string pattern;
            for (const std::string& n : o.spellings())
                pattern += (pattern.empty() ? "" : "|") + ("\"" + d.name + " " + n + "\"");
            s << "\t" << pattern << ")\n\t\t"
              << (o.source ? "_rblkctl_reply " + bash_command(*o.source)
                           : std::string("COMPREPLY=()"))
              << "\n\t\treturn 0 ;;\n";
        }
    s << "\tesac\n\n";

    // Options, then subcommands or the subcommand's positional.
    s << "\tif [[ $cur == -* ]]; then\n"
      << "\t\tcase $sub in\n"
      << "\t\t\"\") _rblkctl_reply compgen -W \"" << join(top_options) << "\" -- \"$cur\" ;;\n";
    for (const Subcommand& d : subs) {
        std::vector<std::string> spellings;
        for (const OptionInfo& o : d.options)
            for (const std::string& n : o.spellings())
                spellings.push_back(n);
        s << "\t\t" << d.name << ") _rblkctl_reply compgen -W \"" << join(spellings)
          << "\" -- \"$cur\" ;;\n";
    }
    s << "\t\tesac\n"
      << "\t\treturn 0\n"
      << "\tfi\n"
      << "\tcase $sub in\n"
      << "\t\"\") _rblkctl_reply compgen -W \"" << join(names) << "\" -- \"$cur\" ;;\n";
    for (const Subcommand& d : subs)
        if (d.positional)
            s << "\t" << d.name << ") _rblkctl_reply " << bash_command(*d.positional) << " ;;\n";
    s << "\t*) COMPREPLY=() ;;\n"
      << "\tesac\n"
      << "\treturn 0\n"
      << "}\n\n"
      << "complete -F _rblkctl rblkctl\n";
    return s.str();
}

namespace {

constexpr const char* kZshPrologue = R"zsh(#compdef rblkctl
# zsh completion for rblkctl
# Generated by `rblkctl completion zsh` from rblkctl's command line: do not
# edit, rebuild instead. Installed as _rblkctl in $fpath, or loaded with
# `source <(rblkctl completion zsh)` after compinit.

_rblkctl_controllers() {
	local -a names
	names=(/sys/class/rblk/*(N:t))
	compadd -a names
}

_rblkctl_subnqns() {
	local -a nqns
	nqns=(${(fu)"$(cat /sys/class/rblk/*/subnqn 2> /dev/null)"})
	compadd -a nqns
}

)zsh";

// Text inside a single-quoted _arguments spec: the quote closed and
// reopened around an escaped one, brackets escaped (a ']' would end the
// description).
std::string zsh_quoted(const std::string& text)
{
    std::string out;
    for (const char c : text) {
        if (c == '\'')
            out += "'\\''";
        else if (c == '[' || c == ']' || c == '\\')
            out += std::string("\\") + c;
        else
            out += c;
    }
    return out;
}

// One _arguments spec: '(-a --traddr)'{-a+,--traddr=}'[Target address]:traddr:'
std::string zsh_spec(const OptionInfo& o)
{
    std::vector<std::string> forms;
    for (const std::string& n : o.shorts)
        forms.push_back("-" + n + (o.takes_value ? "+" : ""));
    for (const std::string& n : o.longs)
        forms.push_back("--" + n + (o.takes_value ? (o.value_optional ? "=-" : "=") : ""));
    std::string s = "'(" + join(o.spellings()) + ")'";
    s += forms.size() == 1 ? forms.front() : "{" + join(forms, ",") + "}";
    s += "'[" + zsh_quoted(o.description) + "]";
    if (o.takes_value) {
        const std::string label = o.longs.empty() ? o.shorts.front() : o.longs.front();
        s += std::string(o.value_optional ? "::" : ":") + label + ":" + zsh_action(o.source);
    }
    return s + "'";
}

}  // namespace

std::string zsh_completion(const CLI::App& app)
{
    const std::vector<Subcommand> subs = describe_all(app);
    std::ostringstream s;
    s << kZshPrologue << "_rblkctl() {\n"
      << "\tlocal curcontext=$curcontext state line\n"
      << "\ttypeset -A opt_args\n"
      << "\t_arguments -C \\\n";
    for (const CLI::Option* opt : app.get_options()) {
        OptionInfo o{opt->get_snames(), opt->get_lnames(), opt->get_description(), false, false,
                     nullptr};
        s << "\t\t" << zsh_spec(o) << " \\\n";
    }
    s << "\t\t'1: :->command' \\\n"
      << "\t\t'*:: :->args'\n"
      << "\tcase $state in\n"
      << "\tcommand)\n"
      << "\t\tlocal -a commands\n"
      << "\t\tcommands=(\n";
    for (const Subcommand& d : subs)
        s << "\t\t\t'" << d.name << ":" << zsh_quoted(d.description) << "'\n";
    s << "\t\t)\n"
      << "\t\t_describe -t commands 'rblkctl command' commands\n"
      << "\t\t;;\n"
      << "\targs)\n"
      << "\t\tcurcontext=${curcontext%:*:*}:rblkctl-$line[1]:\n"
      << "\t\tcase $line[1] in\n";
    for (const Subcommand& d : subs) {
        s << "\t\t" << d.name << ")\n"
          << "\t\t\t_arguments";
        for (const OptionInfo& o : d.options)
            s << " \\\n\t\t\t\t" << zsh_spec(o);
        if (!d.positional_name.empty())
            s << " \\\n\t\t\t\t'1:" << d.positional_name << ":" << zsh_action(d.positional) << "'";
        s << "\n\t\t\t;;\n";
    }
    s << "\t\tesac\n"
      << "\t\t;;\n"
      << "\tesac\n"
      << "}\n\n"
      << "# Autoloaded from $fpath this file is the function's body; sourced, it\n"
      << "# registers the function instead.\n"
      << "if [ \"$funcstack[1]\" = \"_rblkctl\" ]; then\n"
      << "\t_rblkctl \"$@\"\n"
      << "else\n"
      << "\tcompdef _rblkctl rblkctl\n"
      << "fi\n";
    return s.str();
}

void add_completion(CLI::App& app, Request& req)
{
    CLI::App* sub = app.add_subcommand("completion", "Print a shell completion script");
    sub->add_option("shell", req.shell, "Shell: bash or zsh")
        ->required()
        ->check(CLI::IsMember(completion_shells()));
    sub->callback([&app, &req] {
        req.command = Command::Completion;
        req.output = req.shell == "zsh" ? zsh_completion(app) : bash_completion(app);
    });
}

int run_completion(const Request& req, std::ostream& out)
{
    out << req.output;
    return 0;
}

}  // namespace rblkctl
