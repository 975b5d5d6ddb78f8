import torch
import torch.multiprocessing as mp


def child():
    torch.zeros(1).cuda()
if __name__ == "__main__":
    torch.zeros(1).cuda()             # CUDA initialised in the parent
    p = mp.get_context("fork").Process(target=child)
    p.start()
    p.join()
    print("child exitcode", p.exitcode)
