"""What the code-context tools (context, function, class, explain) share: name and file
resolution with specific errors, the output models, annotations and markdown rendering."""
